/**
 * The note after a stop is core's now (the session runner words the message with it); this file
 * goes once the last host that words its own messages is on the runner.
 */
export { afterStop, withoutAddedContext } from "@cairn/core";
