package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"time"
)

// clientAssertionType is the client_assertion_type of a private_key_jwt
// client authentication (RFC 7523 section 2.2).
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// clientAssertion is a JWT that authenticates clientID to the
// authorization server audience (its issuer), signed with the private key
// in the PEM file keyFile (PKCS#8, SEC 1 or PKCS#1): ES256 for a P-256
// key, RS256 for an RSA key. It is valid for 5 minutes from now. Errors:
// the file cannot be read, is not PEM, or holds another kind of key.
func clientAssertion(keyFile, clientID, audience string, now time.Time) (string, error) {
	key, err := readPrivateKey(keyFile)
	if err != nil {
		return "", err
	}
	alg := "RS256"
	if _, ok := key.(*ecdsa.PrivateKey); ok {
		alg = "ES256"
	}
	var jti [16]byte
	if _, err := rand.Read(jti[:]); err != nil {
		return "", err
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": alg, "typ": "JWT"}) + "." + enc(map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": hex.EncodeToString(jti[:])})
	digest := sha256.Sum256([]byte(signed))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			return "", err
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	case *rsa.PrivateKey:
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:]); err != nil {
			return "", err
		}
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// readPrivateKey reads a P-256 or RSA private key from a PEM file.
func readPrivateKey(keyFile string) (crypto.Signer, error) {
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("the OAuth client's private key (oauth.private_key_file): %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("the OAuth client's private key %s is not PEM: write it as -----BEGIN PRIVATE KEY-----", keyFile)
	}
	var key any
	if key, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if key, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		}
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve == elliptic.P256() {
			return k, nil
		}
	case *rsa.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("the OAuth client's private key %s is not a P-256 (ES256) or RSA (RS256) private key (%v)", keyFile, err)
}
