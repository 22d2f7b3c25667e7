export { collectGarbageUntil } from "./collect-garbage.js";
export type { ConformanceCase, ConformanceCaseId } from "./conformance-cases.js";
export { conformanceCases, seedJobs } from "./conformance-cases.js";
export { cteQueryTests } from "./conformance-cte-queries.js";
export { datetimeSamples, datetimeTests } from "./conformance-datetimes.js";
export { expressionEdgeTests } from "./conformance-expression-edges.js";
export { expressionTests } from "./conformance-expressions.js";
export { ConformanceCustomer, ConformanceJob, ConformanceOrder, ConformanceValue, JOB_IDS, T0, T1 } from "./conformance-models.js";
export { queryTests, shopCustomers, shopOrders } from "./conformance-queries.js";
export {
  RelCategory,
  RelComment,
  RelLabel,
  RelProfile,
  RelTicket,
  RelTicketLabel,
  RelUser,
  relationModels,
} from "./conformance-relation-models.js";
export { relationTests } from "./conformance-relations.js";
export { schemaTests } from "./conformance-schema.js";
export { schemaChangeTests } from "./conformance-schema-changes.js";
export { columnSnapshot } from "./conformance-schema-fixtures.js";
export { SchemaChild, SchemaOutbound, SchemaParent, schemaModels } from "./conformance-schema-models.js";
export type { ShapeCaseKind } from "./conformance-shape-cache.js";
export { SHAPE_CASE_KINDS, shapeCacheMismatches } from "./conformance-shape-cache.js";
export { streamTests } from "./conformance-streams.js";
export { stringSamples, stringTests } from "./conformance-strings.js";
export { windowTests } from "./conformance-windows.js";
/** Print what a dialect compiles every case to: the starting point for a new dialect's expectations. */
export { describeConformanceSql } from "./describe-conformance-sql.js";
export { hostileStrings } from "./hostile-strings.js";
export type { ConformanceTarget, ExpectedStatement } from "./run-conformance-suite.js";
export { runConformanceSuite } from "./run-conformance-suite.js";
