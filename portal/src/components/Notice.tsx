/** A failure or a success, in words. */
export function Notice({ error, done }: { error?: string | undefined; done?: string | undefined }) {
  if (error)
    return (
      <p class="notice error" role="alert">
        {error}
      </p>
    );
  if (done)
    return (
      <p class="notice done" role="status">
        {done}
      </p>
    );
  return null;
}
