// Modules the build makes (web/build/): the request-body validators compiled from the OpenAPI document.
declare module 'virtual:request-validators';
