import pino from 'pino';

// Redaction is a second line of defence: the code never passes bodies, cookies or keys to the logger.
export function createLogger(level: string, destination?: pino.DestinationStream) {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.cookie', 'req.headers.authorization', '*.password', '*.apiKey', '*.body', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type TLogger = ReturnType<typeof createLogger>;
