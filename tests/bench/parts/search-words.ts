// The searches' words, shared by the search rows and their walled counterparts: each word of
// COMMON is in 5% of the seeded records, each of SECOND in 2.5% (see the seeding in queries.ts).

export const COMMON = ['invoice', 'hearing', 'contract', 'deposit', 'tenancy', 'landlord', 'mortgage', 'settlement', 'witness', 'court'];
export const SECOND = ['bundle', 'deadline', 'meeting', 'payment', 'lease', 'tribunal', 'survey', 'notice', 'receipt', 'keys'];
export const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
