import { ImageOff } from 'lucide-react';
import { useState } from 'react';

/** The chosen image, or 'Error al cargar' when it does not load (spec section 2). */
export function ImagePreview({ src, alt }: { src: string; alt: string }) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const failed = failedSrc === src;
  return (
    <div className="flex h-40 w-full items-center justify-center overflow-hidden rounded-md border border-slate-200 bg-slate-50 sm:w-40">
      {failed ? (
        <p className="flex flex-col items-center gap-1 text-sm text-red-700">
          <ImageOff aria-hidden="true" className="h-6 w-6" />
          Error al cargar
        </p>
      ) : (
        <img src={src} alt={alt} className="h-full w-full object-contain" onError={() => setFailedSrc(src)} />
      )}
    </div>
  );
}
