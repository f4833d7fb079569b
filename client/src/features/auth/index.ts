// Signing in, and what the app does when a session ends under it.
export { checkStillSignedIn, handleUnauthorized } from './session-end';
export { SignInPage } from './sign-in-page';
export { passkeyProblem, usePasskeyAssertion, usePasskeyCreation } from './passkey-browser';
export { InvitePage } from './invite-page';
export { StepUpDialog } from './step-up-dialog';
