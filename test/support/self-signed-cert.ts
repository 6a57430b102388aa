/** A self-signed certificate for 127.0.0.1 and localhost (test only), valid until 2126: a TLS server for a client to refuse or, told to trust it, to talk to. */
export const selfSigned = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqmpKieypBtE6LFdn
jMtpcS25i5gJuwPMjvndG2LL6JqhRANCAARVTjBow7nxwQv9f2u1i7AFa+VHbs8M
2rv4FtX7g8Uv0bPXrXZKc0XwOmVXuz40LsxiGwD7g8XqF7rtemmwB44z
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUbLPEw0vzfZO2KhZ2EzBiAQLhQpYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNTAyNDU1NVoYDzIxMjYxMTAx
MDI0NTU1WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARVTjBow7nxwQv9f2u1i7AFa+VHbs8M2rv4FtX7g8Uv0bPXrXZKc0Xw
OmVXuz40LsxiGwD7g8XqF7rtemmwB44zo28wbTAdBgNVHQ4EFgQUn6X6lGuYrlEi
jbnEnMI3nymyVuswHwYDVR0jBBgwFoAUn6X6lGuYrlEijbnEnMI3nymyVuswDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIgDOrOP0tXVrIA6bt7tqSEpB41M7pQ8jMzE8Qoo5rQTsICIQD/
sQdRGkN6TiFqZbggf9CN3pXKStydtl2VSD2GPOXZ9w==
-----END CERTIFICATE-----
`,
};
