-- Text search matches literally: `%`, `_` and `\` in the search column are stored as the noncharacters
-- U+FDD0, U+FDD1 and U+FDD2 (lib/runs/queries.ts, literalSearchText), as the query is, so LIKE's wildcards
-- never come from what a person typed.
UPDATE "Run" SET "searchText" = replace(replace(replace("searchText", '%', char(64976)), '_', char(64977)), '\', char(64978));
