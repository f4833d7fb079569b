/** Progress for a long maintenance run, on stderr (stdout keeps the one-line result): every 2 s at most, and whenever `force` says a step ended. */
export function createProgressLine(label: string, intervalMs = 2_000): (line: string, force?: boolean) => void {
  let last = 0;
  return (line, force = false) => {
    const now = Date.now();
    if (!force && now - last < intervalMs) return;
    last = now;
    process.stderr.write(`${label}: ${line}\n`);
  };
}

export const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const count = (n: number) => n.toLocaleString('en-GB');
