import { describe, expect, it } from "vitest";
import { looksLikePrompt, quotePrompt } from "./interactive-prompt.js";

describe("looksLikePrompt", () => {
  it.each([
    "Do you want to continue? [Y/n] ",
    "Overwrite README.md? (y/n)",
    "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
    "Stage this hunk [y,n,q,a,d,e,?]? ",
    "Need to install the following packages:\ncreate-vite@5.0.0\nOk to proceed? (y) ".split("\n")[2] ?? "",
    "Password:",
    "[sudo] password for ann: ",
    "Enter passphrase for key '/home/ann/.ssh/id_ed25519': ",
    "Username for 'https://github.com': ",
    "Email: ",
    "Press any key to continue . . .",
    "Press Enter to open github.com in your browser...",
    "Do you want to overwrite the existing config?",
  ])("a finished or unfinished line %j is a prompt", (line) => {
    expect(looksLikePrompt(line, false)).toBe(true);
    expect(looksLikePrompt(line, true)).toBe(true);
  });

  it.each(["Your name? ", "Project name: ", "Enter a value:  ", "Select a framework › ", "What is your name?"])(
    "an unfinished line %j is a prompt, the same line finished is not",
    (line) => {
      expect(looksLikePrompt(line, true)).toBe(true);
      expect(looksLikePrompt(line, false)).toBe(false);
    },
  );

  it.each([
    "",
    "   ",
    "Compiling...",
    "Downloading: 45%",
    "[=====>     ] 50%",
    "  VITE v5.0.0  ready in 300 ms",
    "  ➜  press h + enter to show help",
    "Press Ctrl+C to stop",
    "Watching for file changes in /src:",
    "error: ",
    "[INFO] warning: ",
    "12:30: ",
    "Listening on http://localhost: ",
    "Step 3/7 : RUN npm ci",
    "Tests: 12 passed, 12 total",
    "› Press a to run all tests.",
    "Server started at http://localhost:3000",
    "Did you know?  Run with --help to see options.",
  ])("ordinary output %j is not a prompt, even unfinished", (line) => {
    expect(looksLikePrompt(line, true)).toBe(false);
    expect(looksLikePrompt(line, false)).toBe(false);
  });

  it("ignores a very long line even if it ends like a question", () => {
    expect(looksLikePrompt(`${"word ".repeat(100)}continue?`, true)).toBe(false);
  });
});

describe("quotePrompt", () => {
  it("trims the line and shortens a long one from the start", () => {
    expect(quotePrompt("  Your name?   ")).toBe("Your name?");
    const long = `${"x".repeat(300)} Password:`;
    expect(quotePrompt(long)).toBe(`…${long.slice(-159)}`);
  });
});
