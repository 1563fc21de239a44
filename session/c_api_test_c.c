/* The C side of c_api_test: compiled as C (not C++), so the header is
 * checked to be valid C and the calls are what a C program writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/loom_session_c_api.h"

/* Runs the NetDef at `path` on `pixels` (float32 [1, 3, 32, 32]) and
 * writes its 10 probabilities into `prob`, once into a value the library
 * makes and once into `prob` itself (a caller-owned buffer); both must
 * agree. Returns 0, or -1 with the error in `error`. */
int LoomCRunDefaultModel(const char* path, float* pixels, float* prob, char* error, size_t error_size) {
  const LoomSessionApi* api = LoomGetSessionApi(LOOM_SESSION_API_VERSION);
  LoomStatus* st = NULL;
  LoomSession* session = NULL;
  LoomValue *x = NULL, *made = NULL, *mine = NULL;
  FILE* f = fopen(path, "rb");
  char* bytes = NULL;
  long n = 0;
  int rc = -1;
  if (api == NULL || f == NULL) {
    snprintf(error, error_size, "no API table or cannot open %s", path);
    if (f) fclose(f);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  bytes = malloc((size_t)n);
  if (fread(bytes, 1, (size_t)n, f) != (size_t)n) n = -1;
  fclose(f);

  LoomSessionOptions options;
  memset(&options, 0, sizeof options);
  options.struct_size = LOOM_SESSION_OPTIONS_STRUCT_SIZE;
  options.num_threads = 1;
  st = api->CreateSessionFromNetDef(bytes, n < 0 ? 0 : (size_t)n, &options, &session);
  free(bytes);
  if (st != NULL) goto done;

  {
    const int64_t dims[] = {1, 3, 32, 32};
    const int64_t out_dims[] = {1, 10};
    const char* in_names[] = {"image"};
    const char* out_names[] = {"prob"};
    st = api->CreateValueOver(LOOM_DTYPE_FLOAT, dims, 4, pixels, sizeof(float) * 3 * 32 * 32, &x);
    if (st != NULL) goto done;
    st = api->Run(session, in_names, (const LoomValue* const*)&x, 1, out_names, 1, &made);
    if (st != NULL) goto done;
    st = api->CreateValueOver(LOOM_DTYPE_FLOAT, out_dims, 2, prob, sizeof(float) * 10, &mine);
    if (st != NULL) goto done;
    st = api->Run(session, in_names, (const LoomValue* const*)&x, 1, out_names, 1, &mine);
    if (st != NULL) goto done;
    if (api->ValueNumElements(made) != 10 || memcmp(api->ValueData(made), prob, sizeof(float) * 10) != 0) {
      snprintf(error, error_size, "the made output and the caller's buffer differ");
      goto done;
    }
    rc = 0;
  }

done:
  if (st != NULL) {
    snprintf(error, error_size, "%s (code %d)", api->StatusMessage(st), (int)api->StatusCode(st));
    api->ReleaseStatus(st);
  }
  if (made) api->ReleaseValue(made);
  if (mine) api->ReleaseValue(mine);
  if (x) api->ReleaseValue(x);
  if (session) api->ReleaseSession(session);
  return rc;
}
