/** A document's properties as a request sets them (ReportingCloud's documentSettings), for any output format. */
export interface DocumentProperties {
  author?: string;
  title?: string;
  subject?: string;
  creatorApplication?: string;
  creationDate?: Date;
  lastModificationDate?: Date;
}
