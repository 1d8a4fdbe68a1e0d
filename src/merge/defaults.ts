/** What every merge starts from before its mergeSettings; the client's MERGE_DEFAULTS is generated from it (scripts/client-types.ts). */
export const MERGE_DEFAULTS = {
  removeEmptyFields: true,
  removeEmptyBlocks: true,
  removeEmptyLines: false,
  removeEmptyImages: false,
  mergeHtml: false,
  removeTrailingWhitespace: true,
  culture: 'en-US',
};
