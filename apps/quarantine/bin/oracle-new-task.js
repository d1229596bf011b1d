#!/usr/bin/env node
import { main } from "../dist/new-task/cli.js";

process.exit(await main(process.argv.slice(2)));
