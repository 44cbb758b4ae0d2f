/** Image types the product bucket accepts (spec sections 5 and 9). */
export const ACCEPTED_IMAGE_TYPES = ['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/webp'] as const;
const ACCEPTED_EXTENSIONS = ['jpeg', 'jpg', 'png', 'gif', 'webp'];

/** The upload cap: 10 MB. */
export const MAX_IMAGE_BYTES = 10_485_760;

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** Whether a picked file may be uploaded: an accepted image type and at most 10 MB. */
export function isAcceptedImage(file: Pick<File, 'name' | 'type' | 'size'>): boolean {
  const typeOk = file.type
    ? (ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type.toLowerCase())
    : ACCEPTED_EXTENSIONS.includes(extensionOf(file.name));
  return typeOk && file.size > 0 && file.size <= MAX_IMAGE_BYTES;
}

/**
 * A unique object name for an upload: the time, random text and the original
 * extension (spec section 7), e.g. `1732370000000-k3j9x2ab.png`.
 */
export function uploadFileName(
  originalName: string,
  now: number = Date.now(),
  random: string = Math.random().toString(36).slice(2, 10),
): string {
  const extension = extensionOf(originalName);
  return extension ? `${now}-${random}.${extension}` : `${now}-${random}`;
}
