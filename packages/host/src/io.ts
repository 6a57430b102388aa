/** What a command is given to talk to the person: its two output streams and its environment. */
export type Io = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
};
