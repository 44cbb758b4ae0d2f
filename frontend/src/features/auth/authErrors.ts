/**
 * GoTrue answers in English ('Invalid login credentials'); the shop speaks
 * Spanish. The message shown under 'Error al iniciar sesión' is
 * chosen by the error's `code` (GoTrue's error codes,
 * https://supabase.com/docs/guides/auth/debugging/error-codes), its status,
 * or auth-js's `AuthRetryableFetchError` for a request that got no answer;
 * anything else is the spec's 'Revisa tus credenciales'.
 */
export const authMessages = {
  invalidCredentials: 'Correo o contraseña incorrectos.',
  rateLimited: 'Demasiados intentos. Espera unos minutos e inténtalo de nuevo.',
  network: 'No se pudo conectar con el servidor. Revisa tu conexión e inténtalo de nuevo.',
  fallback: 'Revisa tus credenciales',
} as const;

interface AuthLikeError {
  name?: string;
  code?: string;
  status?: number;
  message?: string;
}

export function authErrorMessage(error: unknown): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as AuthLikeError;
  if (e.code === 'invalid_credentials' || e.message === 'Invalid login credentials') return authMessages.invalidCredentials;
  if (e.status === 429 || (e.code ?? '').startsWith('over_') || e.code === 'too_many_requests') return authMessages.rateLimited;
  // auth-js: AuthRetryableFetchError (status 0) when fetch itself failed;
  // a TypeError ('Failed to fetch') from fetch directly.
  if (e.name === 'AuthRetryableFetchError' || e.status === 0 || e.name === 'TypeError') return authMessages.network;
  return authMessages.fallback;
}
