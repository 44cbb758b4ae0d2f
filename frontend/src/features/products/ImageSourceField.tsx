import { Check, Link as LinkIcon, List, Upload } from 'lucide-react';
import { useEffect, useId, useMemo, useState, type ChangeEvent } from 'react';
import { FieldError, Input, Label, Select } from '@/components/ui/input';
import { cn } from '@/lib/cn';
import { radioProps } from '@/components/ui/radio-group';
import { imageCategories, predefinedImages } from '@/lib/productImages';
import { ACCEPTED_IMAGE_TYPES, isAcceptedImage } from './imageFile';
import { ImagePreview } from './ImagePreview';
import { messages, type ImageMode, type ProductFormValues } from './productForm';

const modes: Array<{ id: ImageMode; label: string; icon: typeof List }> = [
  { id: 'list', label: 'Lista de imágenes', icon: List },
  { id: 'url', label: 'URL', icon: LinkIcon },
  { id: 'upload', label: 'Subir archivo', icon: Upload },
];

interface Props {
  values: ProductFormValues;
  error?: string;
  onModeChange: (mode: ImageMode) => void;
  onChange: (patch: Partial<ProductFormValues>) => void;
  onError: (message: string) => void;
}

function useObjectUrl(file: File | null): string {
  const [url, setUrl] = useState('');
  useEffect(() => {
    if (!file) {
      setUrl('');
      return;
    }
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url;
}

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The three image sources of spec section 4, with the image's preview. */
export function ImageSourceField({ values, error, onModeChange, onChange, onError }: Props) {
  const id = useId();
  const errorId = `${id}-error`;
  const [imageCategory, setImageCategory] = useState('');
  const fileUrl = useObjectUrl(values.file);
  const shownImages = useMemo(
    () => predefinedImages.filter((image) => !imageCategory || image.category === imageCategory),
    [imageCategory],
  );

  const previewSrc =
    values.imageMode === 'upload' ? fileUrl || values.link_image_s3 : values.link_image.trim();

  const onFileChange = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0] ?? null;
    if (!file) return;
    if (!isAcceptedImage(file)) {
      event.target.value = '';
      onChange({ file: null });
      onError(messages.imageFile);
      return;
    }
    onChange({ file, upload_file: true });
  };

  return (
    <fieldset className="space-y-3" aria-describedby={error ? errorId : undefined}>
      <legend className="text-sm font-medium text-slate-800">Imagen del producto</legend>
      <div role="radiogroup" aria-label="Origen de la imagen" className="grid grid-cols-3 gap-1 rounded-lg bg-slate-100 p-1">
        {modes.map(({ id: mode, label, icon: Icon }, index) => (
          <button
            key={mode}
            type="button"
            role="radio"
            aria-checked={values.imageMode === mode}
            onClick={() => values.imageMode !== mode && onModeChange(mode)}
            {...radioProps(
              index,
              modes.findIndex((m) => m.id === values.imageMode),
              (next) => modes[next] && modes[next].id !== values.imageMode && onModeChange(modes[next].id),
            )}
            className={cn(
              'flex items-center justify-center gap-1.5 rounded-md px-2 py-2 text-xs font-medium transition-colors sm:text-sm',
              'focus-visible:outline-2 focus-visible:outline-brand-700',
              values.imageMode === mode ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900',
            )}
          >
            <Icon aria-hidden="true" className="hidden h-4 w-4 sm:block" />
            {label}
          </button>
        ))}
      </div>

      <div className="flex flex-col gap-4 sm:flex-row">
        <div className="min-w-0 flex-1 space-y-2">
          {values.imageMode === 'list' ? (
            <>
              <Label htmlFor={`${id}-category`}>Categoría de imagen</Label>
              <Select id={`${id}-category`} value={imageCategory} onChange={(event) => setImageCategory(event.target.value)}>
                <option value="">Todas las categorías</option>
                {imageCategories().map((category) => (
                  <option key={category} value={category}>
                    {category}
                  </option>
                ))}
              </Select>
              <div
                role="radiogroup"
                aria-label="Imágenes predefinidas"
                aria-invalid={Boolean(error)}
                className="grid max-h-56 grid-cols-2 gap-2 overflow-y-auto rounded-md border border-slate-200 p-2 sm:grid-cols-3"
              >
                {shownImages.map((image, index) => {
                  const selected = values.link_image === image.path;
                  return (
                    <button
                      key={image.path}
                      type="button"
                      role="radio"
                      aria-checked={selected}
                      onClick={() => onChange({ link_image: image.path })}
                      {...radioProps(
                        index,
                        shownImages.findIndex((shown) => shown.path === values.link_image),
                        (next) => shownImages[next] && onChange({ link_image: shownImages[next].path }),
                      )}
                      className={cn(
                        'relative flex flex-col items-center gap-1 rounded-md border p-2 text-center text-xs transition-colors',
                        'focus-visible:outline-2 focus-visible:outline-brand-700',
                        selected ? 'border-brand-700 bg-brand-50 text-brand-900' : 'border-slate-200 hover:border-slate-400',
                      )}
                    >
                      {selected ? (
                        <Check aria-hidden="true" className="absolute right-1 top-1 h-4 w-4 text-brand-700" />
                      ) : null}
                      <img src={image.path} alt="" className="h-14 w-14 object-contain" loading="lazy" />
                      <span className="line-clamp-2">{image.name}</span>
                    </button>
                  );
                })}
              </div>
            </>
          ) : null}

          {values.imageMode === 'url' ? (
            <>
              <Label htmlFor={`${id}-url`}>URL de la imagen</Label>
              <Input
                id={`${id}-url`}
                type="url"
                inputMode="url"
                placeholder="https://ejemplo.com/imagen.jpg"
                value={values.link_image}
                aria-invalid={Boolean(error)}
                aria-describedby={error ? errorId : undefined}
                onChange={(event) => onChange({ link_image: event.target.value })}
              />
            </>
          ) : null}

          {values.imageMode === 'upload' ? (
            <>
              <Label htmlFor={`${id}-file`}>Archivo de imagen</Label>
              <Input
                id={`${id}-file`}
                type="file"
                accept={ACCEPTED_IMAGE_TYPES.join(',')}
                aria-invalid={Boolean(error)}
                aria-describedby={error ? errorId : `${id}-file-hint`}
                onChange={onFileChange}
                className="py-1.5 file:mr-3 file:rounded file:border-0 file:bg-slate-100 file:px-3 file:py-1 file:text-sm file:font-medium"
              />
              <p id={`${id}-file-hint`} className="text-xs text-slate-500">
                {values.file
                  ? `${values.file.name} (${formatSize(values.file.size)})`
                  : 'JPG, PNG, GIF o WEBP; máximo 10 MB.'}
              </p>
            </>
          ) : null}
        </div>
        {previewSrc ? <ImagePreview src={previewSrc} alt="Vista previa de la imagen" /> : null}
      </div>
      <FieldError id={errorId}>{error}</FieldError>
    </fieldset>
  );
}
