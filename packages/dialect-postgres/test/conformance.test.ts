import { runConformanceSuite } from "tempest-db-js/testing";
import { postgresDialect } from "../src/index.js";
import { postgresConformanceSql } from "../src/testing/index.js";
import { PG_URL } from "./pg-url.js";

runConformanceSuite({ name: "PostgreSQL", url: PG_URL, dialect: postgresDialect, expected: postgresConformanceSql });
