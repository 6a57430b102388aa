/** A failure the person should see, announced by screen readers as it appears; nothing when there is none. */
export function ErrorAlert({ message }: { message: string | undefined }) {
  return message ? (
    <p role="alert" className="error">
      {message}
    </p>
  ) : null;
}
