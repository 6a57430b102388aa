export { fleetCommand } from "./fleet-command.js";
