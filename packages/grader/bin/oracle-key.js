#!/usr/bin/env node
import { keyMain } from "../dist/attest/cli.js";

process.exit(await keyMain(process.argv.slice(2)));
