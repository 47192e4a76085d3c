// Typed errors of the Go-template evaluator.
import { CapiError } from '#shared/errors/index.ts';

/**
 * A template that does not parse; carries the 1-based line and column. The message is Go's, `template: name:line: ...`
 * (Go's parser reports the line only).
 */
export class TemplateParseError extends CapiError {
  readonly templateName: string;
  readonly line: number;
  readonly col: number;

  constructor(templateName: string, line: number, col: number, why: string) {
    super(`template: ${templateName}:${line}: ${why}`, { reason: 'TemplateParseFailed' });
    this.templateName = templateName;
    this.line = line;
    this.col = col;
  }
}

/** A template that fails while executing; names the template and the action, like Go's `executing "name" at <.x>`. */
export class TemplateExecError extends CapiError {
  readonly templateName: string;
  readonly action: string;

  constructor(templateName: string, location: string, action: string, why: string) {
    super(`template: ${location}: executing "${templateName}" at <${action}>: ${why}`, {
      reason: 'TemplateExecFailed',
    });
    this.templateName = templateName;
    this.action = action;
  }
}
