// The part of mongodb-connection-string-url's API that src/lib/mongodb-uri.ts uses. The package
// ships types, but its package.json `exports` hides them from NodeNext resolution.
declare module 'mongodb-connection-string-url' {
  export class ConnectionString extends URL {
    constructor(uri: string, options?: { looseValidation?: boolean });
    get isSRV(): boolean;
    get hosts(): string[];
  }
  export default ConnectionString;
}
