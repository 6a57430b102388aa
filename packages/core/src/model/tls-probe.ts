import { connect } from "node:tls";

/**
 * True when the server at `url`'s host and port completes a TLS handshake. Asked only after an
 * http:// request was closed before any answer, the way TLS servers (Node's, OpenSSL-based ones)
 * treat plain text: it tells "this port wants https://", which no retry cures, from a passing reset.
 * The certificate is not checked: the question is only whether TLS is spoken there.
 */
export function speaksTls(url: string, timeoutMs = 1_500): Promise<boolean> {
  let host: string;
  let port: number;
  try {
    const parsed = new URL(url);
    host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
    port = Number(parsed.port || 80);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = connect({ host, port, rejectUnauthorized: false, ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }) });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}
