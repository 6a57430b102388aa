export { protocolNames, type CallOutcome, type ParsedCall, type ProtocolEvent, type ProtocolName, type ToolProtocol, type TurnParser } from "./types.js";
export { coerceXmlParams } from "./coerce.js";
export { nativeProtocol, nativeProtocolWith, toolSpec } from "./native.js";
export { takeTaskProgress, taskProgressParam } from "./task-progress.js";
export { textCallNote } from "./text-calls.js";
export { xmlProtocol, xmlToolSection } from "./xml/xml-protocol.js";
export { XmlStreamParser, type XmlParseEvent, type XmlToolSpec } from "./xml/stream-parser.js";

import { nativeProtocolWith } from "./native.js";
import type { ProtocolName, ToolProtocol } from "./types.js";
import { xmlProtocol } from "./xml/xml-protocol.js";

/** `taskProgress`: native tools offer the focus chain's parameter (xml tools learn of it from the prompt). */
export function protocolFor(name: ProtocolName, options: { taskProgress?: boolean } = {}): ToolProtocol {
  return name === "xml" ? xmlProtocol : nativeProtocolWith(options.taskProgress === true);
}
