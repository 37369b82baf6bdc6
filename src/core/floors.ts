/**
 * The rooms of src/core, bottom up: each folder of src/core, and each file directly in it, is a room,
 * and a room imports only rooms on earlier floors (type-only imports too: a type shared both ways is
 * a design tie both ways). So the rooms form no circle, and each can be read, moved and tested from
 * the rooms below it. test/unit/coreFolders.test.ts holds the code to this table; nothing imports it.
 */
export const CORE_FLOORS: readonly (readonly string[])[] = [
  ['commandLabel.ts', 'errors.ts', 'floors.ts', 'ids.ts', 'limits.ts', 'manifest.ts', 'toolNames.ts', 'types.ts'],
  ['agentStore.ts', 'retention.ts', 'utf8.ts', 'worker/'],
  ['bytes.ts', 'matchText.ts', 'pager.ts'],
  ['search/', 'settings.ts'],
  ['notable/', 'store/'],
  ['agents/', 'files/', 'previewSource.ts', 'previewTypes.ts'],
  ['previewFacts.ts', 'previewNotable.ts'],
  ['capture/', 'preview.ts', 'workers/'],
  ['catalog/', 'codeMode/'],
  ['tools/'],
  ['history/'],
  ['index.ts'],
];
