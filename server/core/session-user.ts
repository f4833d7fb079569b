/** Who is signed in, as every procedure and route sees them. */
export type TSessionUser = { id: number; name: string; email: string; role: 'director' | 'staff' };
