import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

// Single sign-on (server/auth/README.md "Single sign-on"): offered when the server has a provider set up
// (`sso` of /api/health); a refused attempt comes back as `/sign-in?sso_error=<code>`, said here plainly.

const SSO_ERRORS: Record<string, string> = {
  unverified_email: 'Single sign-on did not sign you in: your organisation’s account has not verified your email address.',
  domain_not_allowed: 'Single sign-on did not sign you in: accounts of your email’s domain cannot sign in here.',
  no_account: 'Single sign-on did not sign you in: nobody here signs in with that email. Ask a director of the firm to invite you.',
  deactivated: 'This account has been deactivated. Ask a director of the firm if you need access again.',
  too_many: 'Too many sign-in attempts from this network. Wait a few minutes and try again.',
  unavailable: 'Single sign-on is not reachable just now. Try again in a moment, or sign in with your password.',
  failed: 'Single sign-on did not complete (the answer could not be checked, or it took too long). Try again.',
};

async function fetchSso(): Promise<boolean> {
  const res = await fetch('/api/health');
  const body = (await res.json()) as { sso?: boolean };
  return body.sso === true;
}

/** Reads the refusal once and takes it out of the address, so a reload does not say it again. */
function takeSsoError(): string | null {
  const params = new URLSearchParams(window.location.search);
  const code = params.get('sso_error');
  if (code === null) return null;
  params.delete('sso_error');
  const rest = params.toString();
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${rest ? `?${rest}` : ''}${window.location.hash}`);
  return SSO_ERRORS[code] ?? SSO_ERRORS.failed!;
}

export function SingleSignOn() {
  const [error] = useState(takeSsoError);
  const sso = useQuery({ queryKey: ['health-sso'], queryFn: fetchSso, staleTime: Infinity });
  return (
    <>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {sso.data && (
        <a className="button" href="/api/auth/oidc/start">
          Sign in with single sign-on
        </a>
      )}
    </>
  );
}
