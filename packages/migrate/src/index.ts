// @tempest-db-js/migrate: schema migrations for tempest-db-js. The modules land one by one (diff,
// lock-safety lint, migration files, runner, CLI); this entry re-exports each as it lands.
export {};
