/**
 * Does the last line of a command's output look like a question waiting for an answer?
 *
 * Commands run with an empty stdin and no terminal, so most prompts get end-of-input and give up
 * by themselves; what is left are programs that wait anyway (a login flow waiting on a browser,
 * a tool reading a device) and programs that printed a prompt and then took a default. The check is
 * asked only about a line that has stayed last through a quiet period, and errs on the side of
 * "no": stopping a build because its progress line ended in ": " would be worse than waiting.
 */

/** Answers offered in brackets at the end: (y/n), [Y/n], (yes/no), (yes/no/[fingerprint]), [y,n,q,a,d,e,?]. */
const CHOICES = /(?:\(|\[)\s*(?:y(?:es)?|n(?:o)?)\s*[/|,]\s*(?:y(?:es)?|n(?:o)?)(?:\s*[/|,][^)\]]*)?\s*(?:\)|\])[\s?:>]*$/i;
/** A question answered by default: "Ok to proceed? (y)", "Continue? [Y]". */
const DEFAULT_ANSWER = /\?\s*[([](?:y|n|yes|no)[)\]][\s:>]*$/i;
/** Secrets: "Password:", "[sudo] password for ann: ", "Enter passphrase for key '/x/id_rsa': ". */
const SECRET = /\b(?:password|passphrase|passcode|pin|otp|one-time code|verification code|token)\b[^:\n]{0,80}:\s*$/i;
/** Credentials: "Username for 'https://github.com': ", "Email: ", "login: ". */
const CREDENTIAL = /^\s*(?:\S+\s+)?(?:user ?name|login|e-?mail)(?:\s+for\s+[^\n]{1,120}?)?\s*:\s*$/i;
/** "Press any key to continue", "Press Enter to open github.com in your browser...". */
const PRESS_KEY = /\bpress\s+(?:any\s+key|enter|return|the\s+enter\s+key|<enter>|\[enter\])(?!\w)/i;
/** A yes/no question: "Do you want to continue?", "Overwrite existing files? ". */
const QUESTION = /\b(?:are you sure|do you want|would you like|do you wish|shall i|should i|continue|proceed|overwrite|replace|delete|remove)\b[^?\n]*\?\s*$/i;

/**
 * Weaker signs, trusted only for an unfinished line (the program printed it without a newline and
 * went quiet): "Your name? ", "Project name: ", "Pick one › ". The line must have a word before the
 * mark and a space after a colon, which log lines and progress bars ("50%", "Compiling...") lack.
 */
// (› ❯ », escaped: the code-cached bundle must stay ASCII)
/** What every pattern here needs (a `?`, a colon, a bracket, an arrow, or "press"): a line without any is no prompt, and costs no pattern. */
const MAY_PROMPT = /[?:)\]\u203a\u276f\u00bb]|press/i;
const OPEN_QUESTION = /[A-Za-z][^\n]{0,200}(?:\?\s*|:\s+|[\u203a\u276f\u00bb]\s*)$/;
/** Unfinished lines that end like a prompt but are not one: "12:30: ", "http://host: ". */
const NOT_A_PROMPT = /(?:\d:\s+$|\/\/\S*:\s+$|^\s*(?:\[[^\]]*\]\s*)?(?:error|warning|warn|info|debug|note)\s*:\s+$)/i;

export function looksLikePrompt(line: string, partial: boolean): boolean {
  const text = line.trimStart();
  if (text === "" || text.length > 300 || !MAY_PROMPT.test(text)) return false;
  if (CHOICES.test(text) || DEFAULT_ANSWER.test(text) || PRESS_KEY.test(text)) return true;
  if (SECRET.test(text) || CREDENTIAL.test(text) || QUESTION.test(text)) return true;
  return partial && OPEN_QUESTION.test(text) && !NOT_A_PROMPT.test(text);
}

/** The prompt as quoted to the model: trimmed, and short. */
export function quotePrompt(line: string): string {
  const text = line.trim();
  return text.length <= 160 ? text : `…${text.slice(-159)}`;
}
