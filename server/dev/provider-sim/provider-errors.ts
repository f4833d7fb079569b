import { randomBytes } from 'node:crypto';

// The provider's error answers, in both of its shapes: the cloud API's `{error}` and the on-premise
// API's `{errors:[…]}`, so the app's error parsing is exercised against each.

export function errorBody(status: number, shape: 'cloud' | 'onprem', details: string | undefined, title: string, code = status): unknown {
  if (shape === 'onprem') return { errors: [{ code, title, ...(details ? { details } : {}) }], meta: { api_status: 'stable' } };
  return {
    error: {
      message: title,
      type: 'OAuthException',
      code,
      ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
      fbtrace_id: randomBytes(8).toString('hex'),
    },
  };
}

/** The title an error answer carries for each status, unless a scripted answer gives its own. */
export const ERROR_TITLES: Record<number, string> = {
  400: 'Invalid parameter',
  401: 'Invalid API key',
  403: 'Forbidden',
  404: 'Phone number not found',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};
