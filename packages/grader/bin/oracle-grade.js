#!/usr/bin/env node
import "../dist/oracle-grade.js";
