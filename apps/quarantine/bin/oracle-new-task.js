#!/usr/bin/env node
import "../dist/new-task/cli.js";
