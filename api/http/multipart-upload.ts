/** The multipart reader lives in core/platform, shared with the console's uploads. */
export * from '../../core/platform/multipart-upload';
