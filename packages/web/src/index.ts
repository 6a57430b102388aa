export { webCommand } from "./web-command.js";
export { startWebServer, type WebServer, type WebServerOptions } from "./web-server.js";
