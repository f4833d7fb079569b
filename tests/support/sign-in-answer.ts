/** The person an auth.signIn answer signed in; an answer asking for a second step fails the test. */
export function signedInUser<T>(answer: { user: T } | { mfaRequired: true }): T {
  if (!('user' in answer)) throw new Error('auth.signIn asked for a second step: this account was not expected to have one');
  return answer.user;
}
