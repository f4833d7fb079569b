// async-exit-hook ships no types; only what server/core/db/embedded-postgres.ts uses.
declare module 'async-exit-hook' {
  const asyncExitHook: { unhookEvent(event: string): void };
  export default asyncExitHook;
}
