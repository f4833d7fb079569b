// Demo accounts seeded on an empty embedded database in demo mode. The sign-in
// page shows them only when the server reports demo mode.
export const DEMO_ACCOUNTS = [
  { role: 'director', name: 'Diana Director', email: 'director@demo.firm', password: 'demo-director-pass' },
  { role: 'staff', name: 'Sam Staff', email: 'staff@demo.firm', password: 'demo-staff-pass' },
] as const;
