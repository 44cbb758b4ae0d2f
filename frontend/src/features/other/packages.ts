/** The photo-booth packages of /other (spec section 2: Esencial, Clásico, Premium). */
export const packages = [
  {
    name: 'Esencial',
    tagline: 'Para reuniones y celebraciones pequeñas',
    features: ['2 horas de cabina', 'Fotos impresas ilimitadas', 'Accesorios temáticos básicos', 'Galería digital del evento'],
    highlighted: false,
  },
  {
    name: 'Clásico',
    tagline: 'El favorito para cumpleaños y grados',
    features: [
      '3 horas de cabina',
      'Fotos impresas ilimitadas',
      'Marco personalizado con tu diseño',
      'Accesorios vintage completos',
      'Galería digital del evento',
    ],
    highlighted: true,
  },
  {
    name: 'Premium',
    tagline: 'Para bodas y eventos que no se olvidan',
    features: [
      '5 horas de cabina',
      'Fotos impresas ilimitadas',
      'Marco y fondo personalizados',
      'Libro de recuerdos para los invitados',
      'Anfitrión durante todo el evento',
      'Galería digital y video resumen',
    ],
    highlighted: false,
  },
] as const;
