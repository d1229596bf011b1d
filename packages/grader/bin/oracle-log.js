#!/usr/bin/env node
import { main } from "../dist/log/view/cli.js";

process.exit(await main(process.argv.slice(2)));
