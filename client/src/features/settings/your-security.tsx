import { PasskeysPanel } from './passkeys-panel';
import { PasswordPanel } from './password-panel';
import { SecurityPanel } from './security-panel';
import { SessionsPanel } from './sessions-panel';

/** Settings: how you sign in and where you are signed in — your own, whatever your role. */
export function YourSecurity() {
  return (
    <>
      <SecurityPanel />
      <PasskeysPanel />
      <PasswordPanel />
      <SessionsPanel />
    </>
  );
}
