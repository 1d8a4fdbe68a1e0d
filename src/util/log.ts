/** How the service's parts write a log line (main.ts binds it to the server's JSON logger). */
export type Logger = (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;
