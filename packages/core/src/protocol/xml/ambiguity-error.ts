import type { BlockAmbiguity } from "./types.js";

/** What the model is told when a block's end cannot be trusted: what was ambiguous, that nothing ran, and how to write it instead. */
export function ambiguityError(tool: string, { param, tag, where }: BlockAmbiguity): string {
  const close = `</${param}>`;
  const toolClose = `</${tool}>`;
  const fix = `If the ${param} is meant to hold these tags, split it so that no part holds "${close}" followed by "${toolClose}" (write the first part, then add the rest with replace_in_file)`;
  if (where === "unclosed-nested") {
    return (
      `The <${tool}> block never closed: its ${param} holds a line starting with ${tag}, read as a nested block, so the ${close} and ${toolClose} after it were taken as that block's; or the reply was cut off. ` +
      `It did not run and nothing was written. ${fix}, or write the ${tag} line so it does not start the line.`
    );
  }
  return (
    `The <${tool}> block is ambiguous: "${tag}" appears again after its closing tag ${toolClose}, so its ${param} may hold "${close}" and "${toolClose}" itself and would have been cut at the first of them. ` +
    `It did not run and nothing was written. ${fix}; otherwise leave stray closing tags out of the text after the block.`
  );
}
