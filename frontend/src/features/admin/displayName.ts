/**
 * The name the sidebar shows (spec section 2, Admin layout): the full name
 * (the user's metadata first, then their profile), else the part of the e-mail
 * before the at sign, else 'Usuario'.
 */
export function displayName(input: {
  metadataFullName?: unknown;
  profileFullName?: string | null;
  email?: string | null;
}): string {
  const fromMetadata = typeof input.metadataFullName === 'string' ? input.metadataFullName.trim() : '';
  if (fromMetadata) return fromMetadata;
  const fromProfile = input.profileFullName?.trim();
  if (fromProfile) return fromProfile;
  const localPart = input.email?.split('@')[0]?.trim();
  if (localPart) return localPart;
  return 'Usuario';
}

/** Up to two initials for the avatar. */
export function initials(name: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase() ?? '');
  return letters.join('') || 'U';
}
