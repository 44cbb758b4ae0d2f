import { authErrorMessage, authMessages } from './authErrors';

const apiError = (code: string, status: number, message: string) =>
  Object.assign(new Error(message), { name: 'AuthApiError', code, status });

describe('authErrorMessage', () => {
  it.each([
    ['a wrong password', apiError('invalid_credentials', 400, 'Invalid login credentials'), authMessages.invalidCredentials],
    ['an old server without codes', new Error('Invalid login credentials'), authMessages.invalidCredentials],
    ['too many sign-ins', apiError('over_request_rate_limit', 429, 'Request rate limit reached'), authMessages.rateLimited],
    ['a 429 without a code', Object.assign(new Error('Too many requests'), { status: 429 }), authMessages.rateLimited],
    ['no answer (auth-js)', Object.assign(new Error('Failed to fetch'), { name: 'AuthRetryableFetchError', status: 0 }), authMessages.network],
    ['no answer (fetch)', new TypeError('Failed to fetch'), authMessages.network],
    ['a missing e-mail', apiError('validation_failed', 400, 'missing email or phone'), authMessages.fallback],
    ['an empty error', new Error(''), authMessages.fallback],
    ['something that is no error', 'boom', authMessages.fallback],
  ])('%s reads in Spanish', (_case, error, expected) => {
    expect(authErrorMessage(error)).toBe(expected);
  });
});
