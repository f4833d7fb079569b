// Signing in, and what the app does when a session ends under it.
export { checkStillSignedIn, handleUnauthorized } from './session-end';
export { SignInPage } from './sign-in-page';
