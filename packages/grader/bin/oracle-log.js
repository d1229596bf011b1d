#!/usr/bin/env node
import { logMain } from "../dist/log-view/cli.js";

process.exitCode = await logMain(process.argv.slice(2));
