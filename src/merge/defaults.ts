/** What every merge starts from before its mergeSettings; free of imports so the portal shows the same. */
export const MERGE_DEFAULTS = {
  removeEmptyFields: true,
  removeEmptyBlocks: true,
  removeEmptyLines: false,
  removeEmptyImages: false,
  mergeHtml: false,
  removeTrailingWhitespace: true,
  culture: 'en-US',
};
