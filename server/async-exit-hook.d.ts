// async-exit-hook ships no types; only what main.ts uses.
declare module 'async-exit-hook' {
  const asyncExitHook: { unhookEvent(event: string): void };
  export default asyncExitHook;
}
