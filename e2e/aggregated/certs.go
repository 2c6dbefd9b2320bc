package aggregated

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"time"
)

// servingCert is a throwaway CA and a serving certificate it signed. The CA
// goes into the APIService's caBundle; nothing touches the disk.
type servingCert struct {
	caPEM []byte
	cert  tls.Certificate
}

// newServingCert issues a certificate for dnsNames and ips. The aggregator
// dials the service as <service>.<namespace>.svc, so that name must be among
// dnsNames.
func newServingCert(dnsNames []string, ips []net.IP) (servingCert, error) {
	notBefore := time.Now().Add(-time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return servingCert{}, err
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tabula-aggregated-ca"},
		NotBefore:             notBefore,
		NotAfter:              notBefore.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return servingCert{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return servingCert{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return servingCert{}, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: dnsNames[0]},
		NotBefore:    notBefore,
		NotAfter:     notBefore.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return servingCert{}, err
	}
	return servingCert{
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		cert:  tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key},
	}, nil
}

// tlsConfig serves sc and verifies client certificates against clientCAs when
// one is presented. Requests without one still complete the handshake so
// that they get a 401 Status rather than a TLS alert.
func tlsConfig(sc servingCert, clientCAs *x509.CertPool) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{sc.cert},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    clientCAs,
	}
}
