/** Signs in over HTTP as a browser would and returns the session cookie(s) to send back (`name=value; …`). */
export async function sessionCookie(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ json: { email, password } }),
  });
  if (res.status !== 200) throw new Error(`signing in as ${email} answered ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}
