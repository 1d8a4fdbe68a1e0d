/** The command was used wrongly (exit code 2); the message says how to use it. */
export class UsageError extends Error {}
