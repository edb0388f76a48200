import pino, { type Logger } from 'pino';

/** One pino logger for the process. Credentials are redacted wherever they might be logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-host-token"]',
        'headers.authorization',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}
