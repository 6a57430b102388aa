#!/usr/bin/env node
import { installCrashHandlers, main } from "../dist/main.js";

const argv = process.argv.slice(2);
installCrashHandlers(argv);
process.exitCode = await main(argv);
