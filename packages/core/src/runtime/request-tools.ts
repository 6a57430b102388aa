import type { ToolSpec } from "../model/types.js";
import type { ToolProtocol } from "../protocol/types.js";
import type { AnyTool } from "../tools/tool.js";

/**
 * The tools as a request carries them (native: each one's JSON schema), converted once per tool
 * list. A turn usually offers what the turn before offered, and converting every zod schema was
 * paid for the window estimate and again for each request of every turn. Tools are immutable and
 * keep their identity (brief forms are cached), so the same objects in the same order are the same offer.
 */
export class RequestTools {
  private last: { protocol: ToolProtocol; tools: readonly AnyTool[]; specs: ToolSpec[] | undefined } | undefined;

  of(protocol: ToolProtocol, tools: readonly AnyTool[]): ToolSpec[] | undefined {
    const last = this.last;
    if (last && last.protocol === protocol && sameTools(last.tools, tools)) return last.specs;
    const specs = protocol.requestTools(tools);
    this.last = { protocol, tools: [...tools], specs };
    return specs;
  }
}

function sameTools(a: readonly AnyTool[], b: readonly AnyTool[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}
