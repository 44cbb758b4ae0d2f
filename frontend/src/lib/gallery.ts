// The 8 gallery photos of the /other page (the vintage photo-booth event
// business, spec section 2). The files live in public/gallery/ and are drawn by
// scripts/draw-gallery.mjs; each file's <title> is the same text as its alt.

export interface GalleryPhoto {
  /** URL path served by the app. */
  src: string;
  /** Spanish description of the scene, for the img alt attribute. */
  alt: string;
  width: number;
  height: number;
}

const photo = (n: number, alt: string): GalleryPhoto => ({ src: `/gallery/foto-${n}.svg`, alt, width: 800, height: 600 });

export const galleryPhotos: readonly GalleryPhoto[] = [
  photo(1, 'Cabina de fotos vintage con la cortina cerrada y una tira de fotos recién impresa'),
  photo(2, 'Tres tiras de fotos sobre una mesa de madera, con parejas posando con accesorios'),
  photo(3, 'Pareja posando con sombrero de copa, bigote y labios de utilería bajo luces colgantes'),
  photo(4, 'Grupo de amigos celebrando con gorros de fiesta entre una lluvia de confeti'),
  photo(5, 'Mesa de accesorios con sombreros, bigotes, gafas y labios sobre palitos'),
  photo(6, 'Novios sosteniendo un marco dorado durante la sesión de fotos de su boda'),
  photo(7, 'Cámara antigua de fuelle sobre trípode junto a una sombrilla de estudio'),
  photo(8, 'Libro de recuerdos con fotos instantáneas colgadas de cordeles con pinzas'),
];
